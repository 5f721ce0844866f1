"""The user guide's pictures of the methods, made by driving the real app on an X server, and one paper figure:

    xvfb-run -a -s "-screen 0 1600x1000x24" env QT_QPA_PLATFORM=xcb \\
        .venv/bin/python docs/scripts/screenshots_guide.py [--out docs/images/guide] [--only NAME ...]

- ``sigma-d.png``: McKenna's pedestrian (sigma 100, d 20) at 40 s, its route window, visible intervals and
  candidates (the viewport, zoomed on it);
- ``weights.png``: the forest of MIRAN Figure 1 after the adult and the child have arrived, their whole trails;
- ``irm-corridor.png``: the pedestrian of McKenna + Road walked with IRM, at 60 s, its corridor hatched;
- ``side-by-side.png``: McKenna + Road's pedestrian with MIRAN (blue) and IRM (orange), both arrived (the window);
- ``traffic.png``: the city with traffic at 66 s: the roadworks closed at 60 s, the car on its way round the park;
- ``schedule.png``: the Schedule panel of the same run at 66 s, the car selected;
- ``miran_fig8.png``: MIRAN's Figure 8 as ``miran reproduce --quick --only miran_fig8`` draws it, scaled to 900 px.

Pictures are 8-bit palette PNGs. Exit status 0 when every picture was written, 1 with the reason otherwise. A first
start waits for the engine's JIT compilation.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import drive_window as drive

REPO = Path(__file__).resolve().parents[2]
OUT = REPO / "docs" / "images" / "guide"
SCENES = REPO / "scenes"
VIEW_SIZE = (1100, 760)   # the window of the viewport-only pictures


class Shots:
    """A window on one scene and the helpers to drive it."""

    def __init__(self, app, scene: Path, size=(1280, 800), viewport_only: bool = False) -> None:
        from PySide6 import QtWidgets

        from app.main import create_main_window

        self.app = app
        self.w = create_main_window(str(scene))
        self.w.resize(*size)
        self.w.show()
        self.w.show_editor()
        if viewport_only:  # a picture of the scene alone: the panels and tool bars make room for it
            for bar in (*self.w.docks.values(), *self.w.findChildren(QtWidgets.QToolBar)):
                bar.hide()
        self.settle(0.5)

    def settle(self, seconds: float = 0.4) -> None:
        drive.settle(self.app, seconds)

    def wait(self, until, what: str) -> None:
        drive.wait_until(self.app, self.w, until, what, "screenshots")

    def speed(self, factor: float = 0.0) -> None:
        """Simulation speed: ``factor`` times real time; 0 as fast as possible (a pause then lands many steps late,
        so runs paused at a time go at 16x)."""
        from PySide6 import QtWidgets

        speed = self.w.findChild(QtWidgets.QComboBox, "sim.speed")
        k = speed.findData(factor)
        speed.setCurrentIndex(k)
        speed.activated.emit(k)

    def method(self, name: str) -> None:
        from PySide6 import QtWidgets

        combo = self.w.findChild(QtWidgets.QComboBox, "sim.method")
        k = combo.findData(name)
        combo.setCurrentIndex(k)
        combo.activated.emit(k)

    def play_until(self, until, what: str) -> None:
        """Play until ``until(frame)``, then pause and let the overlays catch up."""
        self.w.sim.actions["sim.play"].trigger()
        self.wait(lambda: self.w.sim.frame is not None and until(self.w.sim.frame), what)
        self.w.sim.actions["sim.pause"].trigger()
        self.wait(lambda: not self.w.sim.frame.playing, "the pause")
        self.settle(1.0)

    def overlays(self, **on: bool) -> None:
        """Switch overlays (Overlays menu) on or off by name."""
        for name, value in on.items():
            self.w.sim.overlay_actions[name].setChecked(value)

    def zoom(self, x0: float, y0: float, x1: float, y1: float) -> None:
        from PySide6 import QtCore

        self.w.viewport.view.setRange(QtCore.QRectF(x0, y0, x1 - x0, y1 - y0), padding=0)
        self.settle(1.0)

    def zoom_on_agent(self, index: int, half_width: float) -> None:
        from PySide6 import QtCore

        x, y = (float(v) for v in self.w.sim.frame.positions[index])
        h = half_width * 0.62
        self.w.viewport.view.setRange(QtCore.QRectF(x - half_width, y - h, 2 * half_width, 2 * h), padding=0)
        self.settle(1.0)

    def save(self, widget, path: Path) -> None:
        drive.save_palette_png(widget.grab().toImage(), path, "screenshots")
        print(f"wrote {path} ({path.stat().st_size // 1024} KB)")

    def close(self) -> None:
        self.w.undo_stack.setClean()
        self.w.close()
        self.settle(0.2)


def sigma_d(app, out: Path) -> None:
    s = Shots(app, SCENES / "mckenna.json", VIEW_SIZE, viewport_only=True)
    s.speed(16.0)
    s.play_until(lambda f: f.time >= 40.0, "t = 40 s")
    s.zoom_on_agent(0, 70.0)
    s.save(s.w.viewport, out / "sigma-d.png")
    s.close()


def weights(app, out: Path) -> None:
    s = Shots(app, SCENES / "forest.json", VIEW_SIZE, viewport_only=True)
    s.overlays(intervals=False, reference=False, candidates=False, attraction=False)
    s.speed()
    s.play_until(lambda f: f.walking == 0, "the adult's and the child's arrival")
    s.zoom(60.0, 40.0, 240.0, 160.0)
    s.save(s.w.viewport, out / "weights.png")
    s.close()


def irm_corridor(app, out: Path) -> None:
    s = Shots(app, SCENES / "mckenna_road.json", VIEW_SIZE, viewport_only=True)
    s.speed(16.0)
    s.play_until(lambda f: f.time >= 1.0, "t = 1 s")      # the run is built; the method changes live
    s.method("irm")
    s.play_until(lambda f: f.time >= 60.0, "t = 60 s")
    s.zoom_on_agent(0, 90.0)
    s.save(s.w.viewport, out / "irm-corridor.png")
    s.close()


def side_by_side(app, out: Path) -> None:
    from PySide6 import QtWidgets

    s = Shots(app, SCENES / "mckenna_road.json")
    compare = s.w.findChild(QtWidgets.QComboBox, "sim.compare_method")
    k = compare.findData("irm")
    compare.setCurrentIndex(k)
    compare.activated.emit(k)
    s.w.sim.actions["sim.compare"].setChecked(True)
    s.overlays(corridor=False, intervals=False, reference=False, candidates=False, attraction=False)
    s.speed()
    s.play_until(lambda f: f.walking == 0 and f.compare_status is not None and not (f.compare_status == 0).any(),
                 "both runs' arrival")
    s.save(s.w, out / "side-by-side.png")
    s.close()


def traffic(app, out: Path) -> None:
    s = Shots(app, SCENES / "city_traffic.json", VIEW_SIZE, viewport_only=True)
    s.overlays(intervals=False, reference=False, candidates=False, attraction=False)
    s.speed(16.0)
    s.play_until(lambda f: f.time >= 66.0, "t = 66 s")
    s.zoom(140.0, 140.0, 330.0, 340.0)
    s.save(s.w.viewport, out / "traffic.png")
    # The Schedule panel at that time, the car selected: its own widget, at the width a right-hand dock has.
    s.w.doc.select([("obstacle", "car")])
    panel = s.w.schedule
    panel.setParent(None)
    panel.resize(420, panel.sizeHint().height() + 8)
    panel.show()
    s.settle(0.5)
    s.save(panel, out / "schedule.png")
    panel.close()
    s.close()


def miran_fig8(app, out: Path) -> None:
    """The figure as ``miran reproduce`` draws it, scaled to 900 pixels wide."""
    from PySide6 import QtCore, QtGui

    with tempfile.TemporaryDirectory(prefix="miran-fig8-") as tmp:
        done = subprocess.run([sys.executable, "-m", "core.cli", "reproduce", tmp, "--quick", "--only",
                               "miran_fig8"], cwd=REPO, capture_output=True, text=True)
        figure = Path(tmp) / "miran_fig8.png"
        if done.returncode != 0 or not figure.exists():
            raise RuntimeError(f"screenshots: miran reproduce failed: {done.stderr[-1000:]}")
        img = QtGui.QImage(str(figure)).scaledToWidth(900, QtCore.Qt.TransformationMode.SmoothTransformation)
        path = out / "miran_fig8.png"
        drive.save_palette_png(img, path, "screenshots")
        print(f"wrote {path} ({path.stat().st_size // 1024} KB)")


PICTURES = {"sigma-d": sigma_d, "weights": weights, "irm-corridor": irm_corridor, "side-by-side": side_by_side,
            "traffic": traffic, "miran_fig8": miran_fig8}


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--only", action="append", choices=sorted(PICTURES), help="only this picture (repeatable)")
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    tmp = tempfile.TemporaryDirectory(prefix="miran-guide-shots-")
    os.environ.setdefault("MIRAN_STUDIO_CONFIG_DIR", tmp.name)
    from app.main import ensure_app

    app = ensure_app()
    try:
        for name in args.only or list(PICTURES):
            PICTURES[name](app, args.out)
    except RuntimeError as e:
        print(e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(REPO))
    sys.exit(main(sys.argv[1:]))
