"""A soak through the window: a seeded run of random user actions (draw, edit, undo, tune, play, pause, reset,
open, import, export, replay, sweep) on the shipped scenes, driven with real events where a user has them. After
each action: no error box, the engine's scene is the document's, no override survives a load, and the plots
advance while the run plays.

The test suite runs a short fixed-seed soak (slow tier). Longer runs, any seed, every shipped scene::

    MIRAN_SOAK_ACTIONS=500 MIRAN_SOAK_SEED=7 MIRAN_SOAK_SCENES=all NUMBA_CACHE_DIR=... \\
        QT_QPA_PLATFORM=offscreen python -m pytest -m slow tests/app/test_app_soak.py -s

``MIRAN_SOAK_SCENES`` is ``all`` (one soak starting on each shipped scene) or comma-separated scene file names;
each action is printed with ``-s``, so a failure names the seed and the actions that led to it. The one box
allowed is the warning that an obstacle just drawn cuts an agent off its goal (the user's edit, reported as it
should be); it is counted and closed. A sweep may be refused only for a character that a swept value leaves no way
(the dialog names the run, its values and the character); that is counted too.
"""

from __future__ import annotations

import os
import random
import re
import time
from pathlib import Path

import numpy as np
import pytest
from PySide6 import QtCore, QtWidgets
from PySide6.QtTest import QTest

from app import qt_dialogs as dialogs
from app import qt_import
from core.scene.io import load_scene

from app_state import engine_state, spin_type, write_osm
from conftest import Driver
from sim_harness import SCENES
from ci_size import full_size, size
from sim_window import BUILD_WAIT, WAIT, action

pytestmark = [pytest.mark.soak, pytest.mark.usefixtures("jit_warm")]

SHIPPED = sorted(p.name for p in SCENES.glob("*.json") if not p.name.endswith(".sweep.json"))
ACTIONS = size(30, 500, "MIRAN_SOAK_ACTIONS")
SEED = int(os.environ.get("MIRAN_SOAK_SEED", "20261127"))
_chosen = os.environ.get("MIRAN_SOAK_SCENES", "all" if full_size() else "mckenna_road.json")
START_SCENES = SHIPPED if _chosen == "all" else [s.strip() for s in _chosen.split(",") if s.strip()]
SCENE_WARNING = "Some agents could not be placed:"
# A swept value can leave a character no way to its goal (a radius twice the tuned one, wider than a passage): the
# dialog then refuses the sweep naming the run, its values and the character, as `miran sweep` refuses it (exit 2).
SWEEP_REFUSED = re.compile(r"run \d+ \([^\n]*\): agents\[\d+\]\.\S+: ")
# How often each action is drawn (relative weights).
WEIGHTS = {"draw_obstacle": 3, "draw_area": 2, "draw_line": 2, "rename": 2, "undo": 4, "redo": 2, "tune": 6,
           "method": 2, "play": 8, "pause": 4, "step": 2, "reset": 4, "open": 3, "import": 1, "new": 1,
           "export": 1, "replay": 2, "add_agents": 2, "preview": 2, "compare": 2, "density": 2, "sweep": 1}


class Soak:
    """One soak: a window, a random generator and the checks after each action."""

    def __init__(self, w, qtbot, rng: random.Random, tmp: Path, monkeypatch) -> None:
        self.w, self.qtbot, self.rng, self.tmp = w, qtbot, rng, tmp
        self.d = Driver(w)
        self.log: list[str] = []
        monkeypatch.setattr(dialogs, "ask_unsaved", lambda parent, name: "discard")
        monkeypatch.setattr(dialogs, "ask_new_scene", lambda parent: ("Soak", 80.0, 60.0))
        self.next_open: Path = SCENES / SHIPPED[0]
        monkeypatch.setattr(dialogs, "ask_open_path", lambda parent, folder: str(self.next_open))
        self.osm = write_osm(tmp / "map.osm")
        monkeypatch.setattr(dialogs, "ask_import_path", lambda parent, folder: str(self.osm))
        monkeypatch.setattr(qt_import, "ask_import_preview", lambda parent, session: session.build())
        self.loaded = False
        self.warnings = 0
        self.refused = 0

    # ----- helpers ----------------------------------------------------------------------------------------------

    @property
    def c(self):
        return self.w.sim.bridge.worker.controller

    def point(self, margin: float = 0.05) -> tuple[float, float]:
        x0, y0, x1, y1 = self.w.scene.bounds
        mx, my = margin * (x1 - x0), margin * (y1 - y0)
        return (self.rng.uniform(x0 + mx, x1 - mx), self.rng.uniform(y0 + my, y1 - my))

    def box(self) -> tuple[tuple[float, float], tuple[float, float]]:
        (ax, ay), (bx, by) = self.point(), self.point()
        x0, y0, x1, y1 = self.w.scene.bounds
        dx, dy = 0.05 * (x1 - x0), 0.05 * (y1 - y0)
        return (min(ax, bx), min(ay, by)), (max(ax, bx) + dx, max(ay, by) + dy)

    def settle(self) -> None:
        """The worker has applied every command and the window has drawn what it published."""
        q = self.w.sim.bridge.commands
        self.qtbot.waitUntil(lambda: q.empty(), timeout=BUILD_WAIT)
        self.qtbot.wait(120)
        self.qtbot.waitUntil(lambda: q.empty(), timeout=BUILD_WAIT)

    def time(self) -> float:
        f = self.w.sim.frame
        return f.time if f is not None else 0.0

    # ----- actions ----------------------------------------------------------------------------------------------

    def draw_obstacle(self) -> None:
        (x0, y0), (x1, y1) = self.box()
        self.d.tool("obstacle")
        for p in ((x0, y0), (x1, y0), (x1, y1), (x0, y1)):
            self.d.click(*p)
        self.d.key(QtCore.Qt.Key.Key_Return)
        self.d.key(QtCore.Qt.Key.Key_Escape)          # a refused one is dropped
        self.d.tool("select")

    def draw_area(self) -> None:
        a, b = self.box()
        self.d.tool("measure_area")
        self.d.drag([a, ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2), b])
        self.d.key(QtCore.Qt.Key.Key_Escape)
        self.d.tool("select")

    def draw_line(self) -> None:
        a, b = self.point(), self.point()
        self.d.tool("measure_line")
        self.d.drag([a, ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2), b])
        self.d.tool("select")

    def rename(self) -> None:
        self.w.doc.select([])
        self.qtbot.waitUntil(lambda: self.w.findChild(QtWidgets.QLineEdit, "inspector.name") is not None,
                             timeout=WAIT)
        name = self.w.findChild(QtWidgets.QLineEdit, "inspector.name")
        name.setFocus()
        name.selectAll()
        QTest.keyClicks(name, f"Soak {self.rng.randrange(1000)}")
        QTest.keyClick(name, QtCore.Qt.Key.Key_Return)

    def undo(self) -> None:
        self.w.actions["edit.undo"].trigger()

    def redo(self) -> None:
        self.w.actions["edit.redo"].trigger()

    def tune(self) -> None:
        p = self.w.sim.parameters
        if p.profile.count():
            p.profile.setCurrentIndex(self.rng.randrange(p.profile.count()))
        fields = [*p.profile_fields.values(), *p.weight_fields.values(), p.dt]
        f = self.rng.choice([f for f in fields if f.isEnabled()] or [p.dt])
        lo, hi = f.lo, f.hi
        v = float(np.exp(self.rng.uniform(np.log(lo), np.log(hi)))) if f.log else self.rng.uniform(lo, hi)
        spin_type(f.spin, f"{v:.3g}", self.qtbot)

    def method(self) -> None:
        p = self.w.sim.parameters
        k = self.rng.randrange(p.method.count())
        if p.method.model().item(k).isEnabled():
            p.method.setCurrentIndex(k)
            p.method.activated.emit(k)

    def play(self) -> None:
        t0 = self.time()
        plot = self.w.sim.plots
        measured = self.measured_until()
        action(self.w, "sim.play").trigger()
        self.qtbot.waitUntil(lambda: (self.w.sim.frame is not None and self.w.sim.frame.playing
                                      and self.w.sim.frame.time > t0) or self.done() or bool(self.w.sim.errors),
                             timeout=BUILD_WAIT)
        self.qtbot.wait(self.rng.randrange(300, 1500))
        if self.w.sim.errors or self.done():
            return
        # The plots advance while the run plays: its time, the arrivals' count of agents, and the measurement.
        self.qtbot.waitUntil(lambda: self.time() > t0 or self.done(), timeout=WAIT)
        self.qtbot.waitUntil(lambda: plot.last is not None and plot.last.n == len(self.w.sim.info.ids)
                             or self.done(), timeout=WAIT)
        if not self.w.scene.measurement.is_empty() and self.time() > 3.0 and self.w.sim.frame.playing:
            self.qtbot.waitUntil(lambda: self.measured_until() > measured or self.done(), timeout=60_000)

    def done(self) -> bool:
        f = self.w.sim.frame
        return f is not None and f.walking == 0

    def measured_until(self) -> float:
        plots = self.w.sim.plots
        plot = plots.density_plot or plots.flow_plot
        curves = plot.listDataItems() if plot is not None else []
        x = curves[0].xData if curves else None
        return float(np.nanmax(x)) if x is not None and len(x) else -1.0

    def pause(self) -> None:
        action(self.w, "sim.pause").trigger()

    def step(self) -> None:
        action(self.w, "sim.step").trigger()

    def reset(self) -> None:
        action(self.w, "sim.reset").trigger()

    def open(self) -> None:
        self.next_open = SCENES / self.rng.choice(SHIPPED)
        self.w.actions["file.open"].trigger()
        self.loaded = True

    def import_(self) -> None:
        self.w.actions["file.import"].trigger()
        self.loaded = True

    def new(self) -> None:
        self.w.actions["file.new"].trigger()
        self.loaded = True

    def export(self) -> None:
        if self.w.sim.info is None or self.w.sim.replay.active:
            return
        path = self.tmp / f"soak{self.rng.randrange(10 ** 6)}.paths.json"
        self.w.sim.export_paths(path)
        assert path.exists()

    def replay(self) -> None:
        s = self.w.sim.replay.timeline.slider
        if s.maximum() > 0:
            s.setValue(self.rng.randrange(s.maximum()))   # live, the slider stands at its end: move it back
            self.qtbot.waitUntil(lambda: self.w.sim.replay.store is not None or bool(self.w.sim.errors),
                                 timeout=WAIT)
            self.qtbot.wait(200)
            self.w.sim.replay.timeline.live.click()

    def add_agents(self) -> None:
        p = self.w.sim.parameters
        p.add_n.setValue(self.rng.randrange(1, 12))
        self.w.findChild(QtWidgets.QPushButton, "sim.add_agents").click()

    def preview(self) -> None:
        a = action(self.w, "sim.preview")
        a.setChecked(not a.isChecked())

    def compare(self) -> None:
        a = action(self.w, "sim.compare")
        a.setChecked(not a.isChecked())

    def density(self) -> None:
        mode = self.w.sim.replay.timeline.mode
        mode.setCurrentIndex(self.rng.randrange(mode.count()))

    def sweep(self) -> None:
        self.w.sim.actions["sim.sweep"].trigger()
        dlg = self.w.sim.sweep
        if dlg is None:
            return
        dlg.param.setCurrentIndex(self.rng.randrange(dlg.param.count()))
        dlg.count.setValue(2)
        dlg.steps.setValue(20)
        dlg.agents.setValue(3)                        # so that a scene without agents has some to sweep
        dlg.workers.setValue(0)
        dlg.run_button.click()
        self.qtbot.waitUntil(lambda: dlg.thread is None, timeout=BUILD_WAIT)
        if dlg.runs is None:
            assert SWEEP_REFUSED.match(dlg.status.text()), dlg.status.text()
            self.refused += 1
        dlg.hide()

    # ----- the checks -------------------------------------------------------------------------------------------

    def check(self, name: str) -> None:
        ui = self.w.sim
        # A random obstacle may cut an agent off its goal: the window says so (a warning about the edited scene,
        # not a failure of the app), and the run goes on without it.
        warnings = [e for e in ui.errors if e.startswith(SCENE_WARNING)]
        if warnings and len(warnings) == len(ui.errors):
            self.warnings += len(warnings)
            ui.errors.clear()
            ui._error_box.close()
        assert not ui.errors, f"{name}: {ui.errors}"
        assert ui._error_box is None or not ui._error_box.isVisible(), name
        self.qtbot.waitUntil(lambda: self.c.document_scene() == self.w.doc.scene, timeout=WAIT)
        if self.loaded:
            self.loaded = False
            assert engine_state(self.w)["overrides"] == {}, f"{name}: an override survived the load"
            scene = self.w.doc.scene
            p = ui.parameters
            pid = p.profile.currentText()
            if pid:
                prof = scene.profile(pid)
                assert p.profile_fields["sigma"].value() == pytest.approx(prof.sigma, rel=1e-3), name
                for tid, f in p.weight_fields.items():
                    assert f.value() == pytest.approx(prof.weight(tid), rel=1e-2), (name, tid)

    def run(self, n: int) -> None:
        names = list(WEIGHTS)
        weights = [WEIGHTS[k] for k in names]
        for k in range(n):
            name = self.rng.choices(names, weights)[0]
            self.log.append(name)
            print(f"soak {k + 1}/{n}: {name} ({self.w.scene.name}, t = {self.time():.1f} s)", flush=True)
            getattr(self, "import_" if name == "import" else name)()
            self.settle()
            self.check(name)


@pytest.mark.parametrize("scene", START_SCENES)
def test_a_seeded_soak_of_random_user_actions(make_studio, qtbot, tmp_path, monkeypatch, scene):
    w = make_studio(SCENES / scene)
    w.sim.start()
    assert load_scene(SCENES / scene) == w.scene
    soak = Soak(w, qtbot, random.Random(f"{SEED}:{scene}"), tmp_path, monkeypatch)
    t0 = time.monotonic()
    try:
        soak.run(ACTIONS)
    except BaseException:
        print(f"soak failed: seed {SEED}, scene {scene}, actions {soak.log}")
        raise
    print(f"soak: {ACTIONS} actions on {scene} (seed {SEED}) in {time.monotonic() - t0:.0f} s, no error, no "
          f"divergence; {soak.warnings} warnings that an edit cut agents off their goals, {soak.refused} sweeps "
          f"refused for a character a swept value left no way")
