"""Take the guide's replay and density screenshots of MIRAN Studio on an X server (run it under Xvfb):

    xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python packaging/screenshots_replay.py [OUT_FOLDER]

It simulates McKenna + Road with 300 random agents for 60 s (core.sim, seed 7), writes the run as a miran-paths
file, opens the scene in a 1500 x 940 window and the file with Simulation > Open Recording, drags the timeline to
mid-run and saves ``replay.png`` (agents and their trails at that time); then draws a measurement area and a
measurement line, switches the Voronoi density heatmap on and saves ``density.png`` (the heatmap over the last
10 s, the area's density and the line's crossings in the Plots panel). PNGs go to resources/screenshots/ unless a
folder is given (the replay as an 8-bit palette image,
the heatmap in full colour). Exit status 0 when every picture was written, 1 otherwise.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SCENE = REPO / "scenes" / "mckenna_road.json"
AGENTS, SEED, STEPS = 300, 7, 600
AREA = [(60.0, 80.0), (110.0, 80.0), (110.0, 120.0), (60.0, 120.0)]
LINE = [(100.0, 40.0), (100.0, 170.0)]
WAIT_S = 600.0


def wait(app, until, seconds: float = WAIT_S, what: str = "") -> None:
    """Process events until ``until()`` holds; SystemExit naming ``what`` after ``seconds``."""
    end = time.monotonic() + seconds
    while not until():
        if time.monotonic() > end:
            raise SystemExit(f"screenshots: timed out waiting for {what}")
        app.processEvents()
        time.sleep(0.02)


def settle(app, seconds: float = 0.5) -> None:
    """Let pending paints catch up."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        app.processEvents()
        time.sleep(0.02)


def save(window, path: Path, palette: bool = True) -> None:
    """The window as an 8-bit palette PNG (``palette``; the heatmap's shades need full colour)."""
    from PySide6 import QtCore, QtGui

    img = window.grab().toImage()
    if palette:
        img = img.convertToFormat(QtGui.QImage.Format.Format_Indexed8, QtCore.Qt.ImageConversionFlag.ThresholdDither)
    if not img.save(str(path), "PNG"):
        raise SystemExit(f"screenshots: could not write {path}")
    print(f"wrote {path} ({path.stat().st_size // 1024} KB)")


def recorded_run(folder: Path) -> Path:
    """Simulate the scene with random agents and write its miran-paths file."""
    from core.export import paths_from_simulation, write_paths
    from core.scene.io import load_scene
    from core.sim import Simulation

    sim = Simulation(load_scene(SCENE))
    sim.add_random_agents(AGENTS, seed=SEED)
    sim.run(max_steps=STEPS)
    path = folder / "run.paths.json"
    write_paths(path, paths_from_simulation(sim))
    return path


def main(argv: list[str]) -> int:
    out = Path(argv[0]) if argv else REPO / "resources" / "screenshots"
    out.mkdir(parents=True, exist_ok=True)
    tmp = tempfile.TemporaryDirectory(prefix="miran-screenshots-")
    os.environ.setdefault("MIRAN_STUDIO_CONFIG_DIR", tmp.name)
    from PySide6 import QtCore, QtWidgets
    from PySide6.QtTest import QTest

    from app.main import create_main_window, ensure_app

    paths = recorded_run(Path(tmp.name))
    app = ensure_app()
    w = create_main_window(str(SCENE))
    w.resize(1500, 940)
    w.show()
    w.show_editor()
    w.sim._start_timer.stop()          # a replay needs no engine
    settle(app)
    w.resizeDocks([w.docks["plots"]], [340], QtCore.Qt.Orientation.Vertical)
    settle(app)
    w.fit()
    if not w.sim.replay.open(paths):
        return 1
    slider = w.findChild(QtWidgets.QSlider, "sim.timeline")
    slider.setFocus()
    # Real key presses: End, then back half the run in page steps and single steps.
    QTest.keyClick(slider, QtCore.Qt.Key.Key_End)
    while slider.value() > slider.maximum() // 2:
        QTest.keyClick(slider, QtCore.Qt.Key.Key_PageDown)
    settle(app)
    save(w, out / "replay.png")
    w.state.set("measure_area", AREA)
    w.state.set("measure_line", LINE)
    w.findChild(QtWidgets.QDoubleSpinBox, "sim.density.window").setValue(10.0)
    mode = w.findChild(QtWidgets.QComboBox, "sim.density.mode")
    mode.setCurrentIndex(mode.findData("voronoi"))
    wait(app, lambda: w.sim.replay.layer.grid is not None and hasattr(w.sim.plots, "flow_plot"),
         what="the density heatmap and the measurement plots")
    settle(app, 1.0)
    save(w, out / "density.png", palette=False)
    w.undo_stack.setClean()
    w.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
