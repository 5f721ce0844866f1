"""The designer's tutorial (docs/tutorial/designer.md), done on the real window, step by step.

Each step does what the tutorial tells its reader to do, with the same numbers: clicks and keys go to the viewport as
real mouse and key events, panel fields are typed into, menu commands are triggered by their shortcut or their
action, and a dialog's answer is the one the tutorial gives. The screenshot of a step is the window after it, so
following the tutorial reproduces each picture's state. Run it on an X server to remake the pictures:

    xvfb-run -a -s "-screen 0 1600x1000x24" env QT_QPA_PLATFORM=xcb \\
        .venv/bin/python docs/scripts/tutorial_designer.py [--shots docs/images/tutorial] [--out FOLDER]

It writes one PNG per step (8-bit palette, about 50 KB each) and, into ``--out`` (a temporary folder by default),
the tutorial's scene and its exports: ``tutorial.json``, ``tutorial.paths.json`` and ``tutorial.traj.txt``.
``tests/app/test_tutorial.py`` runs the same steps offscreen and checks every step's state and the exported files.
Exit status 0 when every step ran; 1 with the reason otherwise. A first start waits for the engine's JIT compilation.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import drive_window as drive

REPO = Path(__file__).resolve().parents[2]
SHOTS = REPO / "docs" / "images" / "tutorial"
WINDOW = (1280, 800)

# The tutorial's numbers (docs/tutorial/designer.md quotes each one).
SCENE_NAME, WIDTH, HEIGHT = "Tutorial", 120.0, 80.0
BUILDINGS = [
    [(10, 60), (40, 60), (40, 70), (10, 70)],
    [(50, 60), (70, 60), (70, 70), (50, 70)],
    [(80, 60), (110, 60), (110, 70), (80, 70)],
]
ROAD = [(0, 40), (120, 40), (120, 50), (0, 50)]
MUD = [(40, 0), (80, 0), (80, 25), (40, 25)]
ROUTE = [(5, 10), (35, 10), (35, 30), (85, 30), (85, 10), (115, 10)]
# Profile fields and weights, typed into the Profiles panel.
PEDESTRIAN = {"sigma": 20.0, "d": 5.0, "weights": {"road": 4.0, "mud": 40.0}}
CHILD = {"sigma": 100.0, "d": 5.0, "weights": {"road": 4.0, "mud": 0.5}}
# Live tuning while they walk: the simulated time at which the reader pauses, and the new values.
TUNE_AT_S = 25.0
PLAY_SPEED = 16.0        # times real time, until the pause
TUNED_SIGMA = 60.0        # the child's sigma
TUNED_MUD = 5.0           # the child's mud weight
COMPARE_METHOD = "irm"


@dataclass
class Step:
    """One step of the tutorial: what it does (``run``), the picture it leaves (``shot``) and its caption."""

    shot: str
    caption: str
    run: Callable[["Tutorial"], None]


@dataclass
class Tutorial:
    """The window being driven and where the tutorial writes its files."""

    app: object
    window: object
    out: Path
    exported: dict[str, Path] = field(default_factory=dict)

    # -- waiting ---------------------------------------------------------------------------------------------

    def wait(self, until: Callable[[], bool], what: str, seconds: float = drive.WAIT_S) -> None:
        """Process events until ``until()`` holds; RuntimeError naming ``what`` after ``seconds`` or on an engine
        error."""
        drive.wait_until(self.app, self.window, until, what, "tutorial", seconds)

    def settle(self, seconds: float = 0.3) -> None:
        drive.settle(self.app, seconds)

    # -- the reader's hands ----------------------------------------------------------------------------------

    def widget(self, cls_name: str, name: str):
        from PySide6 import QtWidgets

        found = self.window.findChild(getattr(QtWidgets, cls_name), name)
        if found is None:
            raise RuntimeError(f"tutorial: no {cls_name} named {name!r} in the window")
        return found

    def tool(self, name: str) -> None:
        """Choose a tool by its key, as the reader does (V, O, T, R, A ...)."""
        self.key_sequence(self.window.actions[f"tool.{name}"].shortcut())
        assert self.window.host.active.name == name, f"the {name} tool is not active"

    def key_sequence(self, seq) -> None:
        """A key sequence pressed on the viewport, so that the window's shortcut fires."""
        from PySide6 import QtGui
        from PySide6.QtTest import QTest

        combo = QtGui.QKeySequence(seq)[0]
        self.window.activateWindow()
        self.window.viewport.setFocus()
        QTest.keyClick(self.window.viewport, combo.key(), combo.keyboardModifiers())
        self.app.processEvents()

    def click(self, x: float, y: float) -> None:
        from PySide6 import QtCore
        from PySide6.QtTest import QTest

        view = self.window.viewport.viewport()
        p = self.window.viewport.world_to_pixel(x, y)
        QTest.mouseMove(view, p)
        QTest.mouseClick(view, QtCore.Qt.MouseButton.LeftButton, QtCore.Qt.KeyboardModifier.NoModifier, p)

    def key(self, key) -> None:
        from PySide6.QtTest import QTest

        QTest.keyClick(self.window.viewport.viewport(), key)

    def polygon(self, points) -> None:
        """Click a polygon's vertices and press Enter to close it."""
        from PySide6 import QtCore

        for p in points:
            self.click(*p)
        self.key(QtCore.Qt.Key.Key_Return)
        self.app.processEvents()

    def type_number(self, spin, value: float) -> None:
        """Select a spin box's text and type a number into it, then Enter (keyboard tracking may be off)."""
        from PySide6 import QtCore
        from PySide6.QtTest import QTest

        spin.setFocus()
        spin.selectAll()
        QTest.keyClicks(spin, f"{value:g}")
        QTest.keyClick(spin, QtCore.Qt.Key.Key_Return)
        self.app.processEvents()
        if abs(spin.value() - value) > 1e-9:
            raise RuntimeError(f"tutorial: {spin.objectName()} shows {spin.value()} after typing {value:g}")

    def click_button(self, button) -> None:
        from PySide6 import QtCore
        from PySide6.QtTest import QTest

        QTest.mouseClick(button, QtCore.Qt.MouseButton.LeftButton)
        self.app.processEvents()

    def choose(self, combo, data) -> None:
        """Pick the combo box entry whose data is ``data``, as a click on it does (``activated`` fires)."""
        i = combo.findData(data)
        if i < 0:
            raise RuntimeError(f"tutorial: {combo.objectName()} has no entry {data!r}")
        combo.setCurrentIndex(i)
        combo.activated.emit(i)
        self.app.processEvents()

    @contextlib.contextmanager
    def answering(self, module, name: str, answer):
        """While the block runs, the dialog ``module.name`` answers ``answer`` (what the reader types there)."""
        old = getattr(module, name)
        setattr(module, name, lambda *a, **k: answer)
        try:
            yield
        finally:
            setattr(module, name, old)

    # -- panels ----------------------------------------------------------------------------------------------

    def add_terrain_type(self, tid: str, name: str) -> None:
        """Terrain Types panel: Add, then type the new row's id and name into its cells."""
        from PySide6 import QtWidgets

        panel = self.window.terrain_types
        add = next(b for b in panel.findChildren(QtWidgets.QPushButton) if b.text() == "Add")
        self.click_button(add)
        self.settle(0.05)
        row = panel.table.rowCount() - 1
        panel.table.item(row, 1).setText(tid)
        self.settle(0.05)
        row = next(r for r in range(panel.table.rowCount()) if panel.table.item(r, 1).text() == tid)
        panel.table.item(row, 2).setText(name)
        self.settle(0.05)
        panel.table.selectRow(row)
        self.app.processEvents()

    def set_profile(self, pid: str, values: dict) -> None:
        """Profiles panel: choose the profile, type its sigma and d, and each weight."""
        combo = self.widget("QComboBox", "profiles.current")
        combo.setCurrentText(pid)
        self.settle(0.05)
        for name in ("sigma", "d"):
            self.type_number(self.widget("QDoubleSpinBox", f"profiles.{name}"), values[name])
        for tid, w in values["weights"].items():
            self.type_number(self.widget("QDoubleSpinBox", f"profiles.weight.{tid}"), w)
        self.settle(0.05)

    def slider_field(self, name: str):
        from PySide6 import QtWidgets

        found = self.window.findChild(QtWidgets.QWidget, name)
        if found is None:
            raise RuntimeError(f"tutorial: no simulation field named {name!r}")
        return found

    # -- the simulation --------------------------------------------------------------------------------------

    def play_until(self, until: Callable[[object], bool], what: str) -> None:
        """Play (F5) until ``until(frame)`` holds, then Pause (F6). Play builds the run first (after the JIT
        warm-up on a first start), so the first frame may take minutes."""
        self.key_sequence("F5")
        self.wait(lambda: self.window.sim.frame is not None and until(self.window.sim.frame), what)
        self.key_sequence("F6")
        self.wait(lambda: not self.window.sim.frame.playing, "the pause")
        self.settle(0.5)

    def everyone_arrived(self, frame) -> bool:
        done = frame.walking == 0
        if frame.compare_status is not None:
            done = done and not (frame.compare_status == 0).any()
        return done

    def shot(self, folder: Path | None, name: str) -> Path | None:
        """The window as an 8-bit palette PNG (about a fifth of a 24-bit one)."""
        if folder is None:
            return None
        self.settle(0.6)
        path = folder / name
        drive.save_palette_png(self.window.grab().toImage(), path, "tutorial")
        return path


# -- the steps -----------------------------------------------------------------------------------------------


def new_scene(t: Tutorial) -> None:
    """File > New Scene (Ctrl+N): name Tutorial, 120 x 80 m."""
    from app import qt_dialogs

    with t.answering(qt_dialogs, "ask_new_scene", (SCENE_NAME, WIDTH, HEIGHT)):
        t.key_sequence("Ctrl+N")
    t.settle(0.3)
    t.window.fit()
    t.settle(0.3)


def buildings_and_road(t: Tutorial) -> None:
    """Draw Obstacle (O): three buildings; a terrain type ``road`` and Draw Terrain (T): the road."""
    t.tool("obstacle")
    for b in BUILDINGS:
        t.polygon(b)
    t.add_terrain_type("road", "Road")
    t.tool("terrain")
    t.polygon(ROAD)


def mud(t: Tutorial) -> None:
    """A terrain type ``mud``, painted south of the road."""
    t.add_terrain_type("mud", "Mud")
    t.tool("terrain")
    t.polygon(MUD)


def route(t: Tutorial) -> None:
    """Sketch Route (R): round the mud, from west to east; Enter ends it."""
    from PySide6 import QtCore

    t.tool("route")
    for p in ROUTE:
        t.click(*p)
    t.key(QtCore.Qt.Key.Key_Return)
    t.app.processEvents()


def characters(t: Tutorial) -> None:
    """Two profiles (pedestrian and child) and one agent of each following the route (Place Agent, A)."""
    from PySide6 import QtWidgets

    from app import qt_dialogs

    t.window.docks["profiles"].raise_()
    t.set_profile("pedestrian", PEDESTRIAN)
    panel = t.window.profiles
    add = next(b for b in panel.findChildren(QtWidgets.QPushButton) if b.text() == "Add")
    t.click_button(add)
    rename = next(b for b in panel.findChildren(QtWidgets.QPushButton) if b.text() == "Rename…")
    with t.answering(qt_dialogs, "ask_text", "child"):
        t.click_button(rename)
    t.settle(0.1)
    t.set_profile("child", CHILD)
    options = t.widget("QComboBox", "options.agent_mode")
    t.tool("agent")
    options.setCurrentIndex(options.findData("route"))
    a, b = ROUTE[1], ROUTE[2]
    on_route = ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
    for pid in ("pedestrian", "child"):
        t.widget("QComboBox", "options.profile").setCurrentText(pid)
        t.app.processEvents()
        t.click(*on_route)
        t.app.processEvents()
    t.tool("select")
    t.key_sequence("Ctrl+Shift+A")  # Edit > Select None: the selected agent's route would be highlighted


def play(t: Tutorial) -> None:
    """Simulation panel: Speed 16x; Play (F5), Pause (F6) at 25 s, and follow the child (Traced: agent 1)."""
    t.window.docks["simulation"].raise_()
    t.choose(t.widget("QComboBox", "sim.speed"), PLAY_SPEED)
    t.play_until(lambda f: f.time >= TUNE_AT_S, f"t = {TUNE_AT_S:g} s")
    traced = t.widget("QSpinBox", "sim.agent")
    traced.setValue(1)
    t.wait(lambda: t.window.sim.selected == 1, "the child to be followed")
    t.settle(1.0)


def tune(t: Tutorial) -> None:
    """While they walk: the child's sigma to 60 and its mud weight to 5 in the Simulation panel; Speed as fast as
    possible and Play on (F5) until both have arrived."""
    profile = t.widget("QComboBox", "sim.profile")
    profile.setCurrentText("child")
    t.settle(0.1)
    t.type_number(t.slider_field("sim.sigma").spin, TUNED_SIGMA)
    t.type_number(t.slider_field("sim.weight.mud").spin, TUNED_MUD)
    speed = t.widget("QComboBox", "sim.speed")
    t.choose(speed, speed.itemData(speed.count() - 1))            # as fast as possible
    t.play_until(t.everyone_arrived, "both characters' arrival")


def side_by_side(t: Tutorial) -> None:
    """Side by Side (Ctrl+Shift+D) with IRM, Reset (Ctrl+F5) and Play until everyone arrived."""
    t.choose(t.widget("QComboBox", "sim.compare_method"), COMPARE_METHOD)
    t.key_sequence("Ctrl+Shift+D")
    t.key_sequence("Ctrl+F5")
    t.wait(lambda: t.window.sim.frame is not None and t.window.sim.frame.time == 0.0
           and t.window.sim.frame.compare_positions is not None, "the reset with the side-by-side run")
    t.play_until(t.everyone_arrived, "both runs' arrival")


def export(t: Tutorial) -> None:
    """Save the scene (Ctrl+S), Export Paths (JSON) (Ctrl+E) and Export Trajectories for PedPy; then open the
    exported paths with Simulation > Open Recording to replay them."""
    from app import qt_dialogs
    from app.sim import qt_sim_ui

    scene = t.out / "tutorial.json"
    with t.answering(qt_dialogs, "ask_save_path", str(scene)):
        t.key_sequence("Ctrl+S")
    t.wait(lambda: scene.exists(), "the saved scene")
    paths, traj = t.out / "tutorial.paths.json", t.out / "tutorial.traj.txt"
    for target in (paths, traj):
        target.unlink(missing_ok=True)
    with t.answering(qt_sim_ui, "ask_export_path", str(paths)):
        t.key_sequence("Ctrl+E")
    t.wait(lambda: paths.exists(), "the exported paths")
    with t.answering(qt_sim_ui, "ask_export_path", str(traj)):
        t.window.sim.actions["sim.export_pedpy"].trigger()
    t.wait(lambda: traj.exists(), "the exported PedPy trajectories")
    t.exported.update(scene=scene, paths=paths, pedpy=traj)
    from PySide6 import QtCore, QtWidgets
    from PySide6.QtTest import QTest

    if not t.window.sim.replay.open(paths):
        raise RuntimeError(f"tutorial: Open Recording refused {paths}")
    slider = t.window.findChild(QtWidgets.QSlider, "sim.timeline")
    slider.setFocus()
    QTest.keyClick(slider, QtCore.Qt.Key.Key_End)         # the slider's keys: End, then back in page steps
    while slider.value() > slider.maximum() * 6 // 10:
        QTest.keyClick(slider, QtCore.Qt.Key.Key_PageDown)
    t.settle(0.5)


STEPS: tuple[Step, ...] = (
    Step("01-new-scene.png", "An empty 120 x 80 m scene", new_scene),
    Step("02-buildings-road.png", "Three buildings and a road", buildings_and_road),
    Step("03-mud.png", "A patch of mud south of the road", mud),
    Step("04-route.png", "The route, sketched round the mud", route),
    Step("05-characters.png", "A pedestrian and a child on the route", characters),
    Step("06-play.png", "At 25 s the child heads across the mud", play),
    Step("07-tune.png", "Tuned while they walk: the child turned back to the route", tune),
    Step("08-side-by-side.png", "MIRAN (blue) and IRM (orange) side by side", side_by_side),
    Step("09-export.png", "The exported paths, replayed at 60 % of the run", export),
)


def open_window(size=WINDOW):
    """A shown main window on the welcome page, as ``miran-studio`` opens."""
    from app.main import create_main_window, ensure_app

    app = ensure_app()
    w = create_main_window(None)
    w.resize(*size)
    w.show()
    w.activateWindow()
    return app, w


def run(shots: Path | None, out: Path, window=None, app=None, on_step=None) -> Tutorial:
    """Every step in order on ``window`` (a new one when None); a screenshot per step into ``shots`` (None: no
    pictures); ``on_step(step, tutorial)`` after each (the test's checks)."""
    if window is None:
        app, window = open_window()
    t = Tutorial(app, window, out)
    t.settle(0.3)
    for step in STEPS:
        step.run(t)
        if on_step is not None:
            on_step(step, t)
        path = t.shot(shots, step.shot)
        if path is not None:
            print(f"wrote {path} ({path.stat().st_size // 1024} KB)")
    return t


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shots", type=Path, default=SHOTS, help="where the PNGs go (default docs/images/tutorial)")
    ap.add_argument("--out", type=Path, default=None, help="where the scene and exports go (default: a temp folder)")
    args = ap.parse_args(argv)
    args.shots.mkdir(parents=True, exist_ok=True)
    tmp = tempfile.TemporaryDirectory(prefix="miran-tutorial-")
    os.environ.setdefault("MIRAN_STUDIO_CONFIG_DIR", str(Path(tmp.name) / "config"))
    out = args.out or Path(tmp.name)
    out.mkdir(parents=True, exist_ok=True)
    try:
        t = run(args.shots, out)
    except RuntimeError as e:
        print(e, file=sys.stderr)
        return 1
    print("exported:", ", ".join(f"{k} {v}" for k, v in t.exported.items()))
    t.window.undo_stack.setClean()
    t.window.close()
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(REPO))
    sys.exit(main(sys.argv[1:]))
