"""The live simulation in the main window: actions, menus, toolbar, docks, layers and status, wired to the
worker threads through ``QtSimBridge``. The window creates one ``QtSimulationUi`` and forwards
``latest_positions``/``export_paths`` to it; nothing here computes: it sends commands and draws snapshots.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from app.actions import ActionSpec, key_sequences, key_text
from app.qt_icons import action_icon
from core.scene.outputs import output_problems

from ..qt_import import IMPORTED_FIELDS
from ..layers.qt_overlays import Z_MARKS, Z_TRACE, EcmOverlay, MeshOverlay, TraceOverlay
from ..layers.qt_raster_cache import RasterCache
from ..layers.qt_sim_agents import Z_AGENTS, Z_TRAILS, SimAgentLayer, WorldLayer, ghost_layer, trails_layer
from ..panels.qt_parameters import QtSimParameters
from ..panels.qt_plots import QtSimPlots, QtSweepPlot
from ..viewport.qt_legend import QtClearanceLegend
from .actions import OVERLAY_MENU, OVERLAYS, SIM_ACTIONS, SIM_MENU
from .pacing import FramePacer
from .qt_replay import QtReplay
from .qt_worker import QtSimBridge

# Milliseconds after the window opens before the worker starts and warms the JIT up (at once when needed).
START_DELAY_MS = 800
PICK_PIXELS = 12.0
STATUS_S = 0.25  # seconds between updates of the status bar's agent counts and frame rate while playing
ECM_RESOLUTION = 1024
PLOTS_HEIGHT = 200       # the plots dock's height at first (one row of plots)
GEOMETRY_FIELDS = ("bounds", "terrain_types", "default_terrain", "obstacles", "terrains")


def ask_export_path(parent: QtWidgets.QWidget, title: str, suggested: str, filt: str) -> str | None:
    """A save dialog for an export; None when cancelled."""
    path, _ = QtWidgets.QFileDialog.getSaveFileName(parent, title, suggested, filt)
    return path or None


class QtSimulationUi(QtCore.QObject):
    """Everything of the live simulation the window shows. ``window`` is the QtMainWindow."""

    time_shown = QtCore.Signal(float)       # the simulated time the window shows (a live frame's or the replay's)

    def __init__(self, window) -> None:
        super().__init__(window)
        self.w = window
        self.doc = window.doc
        self.view = window.viewport.view
        self.bridge = QtSimBridge(self)
        self.errors: list[str] = []
        self.warmup_seconds: float | None = None
        self.info = None
        self.frame = None
        self.generation = -1
        # The run a Reset was asked of: its frames published before the worker took the Reset still say it plays.
        self._resetting: int | None = None
        self.document = 0       # numbers the documents opened; the worker's builds and overlays carry it
        self.selected = -1
        self._frames: list[float] = []
        self.pacer = FramePacer()
        self._pending: dict = {}
        self._drawn = False
        self._status_at = 0.0
        self._draw_timer = QtCore.QTimer(self)
        self._draw_timer.setSingleShot(True)
        self._draw_timer.setTimerType(QtCore.Qt.TimerType.PreciseTimer)
        self._draw_timer.timeout.connect(self._draw)
        self._exports: dict[str, str | None] = {}
        self._ecm_scene = None
        self._error_box: QtWidgets.QMessageBox | None = None
        self.agents = SimAgentLayer(self.view)
        self.world = WorldLayer(self.view)
        self.trails = trails_layer(self.view)
        self.ghost = ghost_layer(self.view)
        self.mesh = MeshOverlay(self.view)
        self.ecm = EcmOverlay(self.view)
        self.legend = QtClearanceLegend(window.viewport)
        # Trails and the ghost change a few times a second, the agents every frame: they get an image of their own
        # between the routes and the agents; the triangulation and the ECM change only on a build and join the
        # scene's static image.
        self.curve_cache = self._cache(Z_TRAILS)
        self.trails.cache_in(self.curve_cache)
        self.ghost.cache_in(self.curve_cache)
        self.mesh.cache_in(window.viewport.static)
        self.ecm.cache_in(window.viewport.static)
        self.trace = TraceOverlay(self.view)
        # The traced agent's overlay changes at most 15 times a second: one small image below the agents (corridor,
        # route window, intervals) and one above (candidates, reference and attraction points, forces).
        below = [it for it in self.trace.items if it.zValue() < Z_AGENTS]
        self.trace_caches = (self._cache(Z_TRACE), self._cache(Z_MARKS))
        self.trace.cache_in(self.trace_caches[0], below)
        self.trace.cache_in(self.trace_caches[1], [it for it in self.trace.items if it not in below])
        self._build_actions()
        self.parameters = QtSimParameters(self._send, window.editor, self.actions)
        self.plots = QtSimPlots()
        self.sweep_plot = QtSweepPlot()
        self.sweep = None
        self._build_docks()
        self._build_menus()
        self._build_toolbar()
        self._build_status()
        self._connect()
        self.replay = QtReplay(self)
        self._overlays_changed()
        self._start_timer = QtCore.QTimer(self)
        self._start_timer.setSingleShot(True)
        self._start_timer.timeout.connect(self.start)
        self._start_timer.start(START_DELAY_MS)

    # ----- building -----------------------------------------------------------------------------------------------

    def _cache(self, z: float) -> RasterCache:
        """A transparent RasterCache in the view at height z."""
        cache = RasterCache()
        cache.setZValue(z)
        self.view.addItem(cache, ignoreBounds=True)
        return cache

    def _action(self, spec: ActionSpec) -> QtGui.QAction:
        a = QtGui.QAction(spec.title, self.w)
        a.setObjectName(spec.id)
        a.setShortcuts(key_sequences(spec.key))
        a.setToolTip(f"{spec.tip} ({key_text(spec.key)})" if spec.key else spec.tip)
        a.setStatusTip(spec.tip)
        if spec.icon:
            a.setIcon(action_icon(self.w, spec.icon))
        if spec.checkable:
            a.setCheckable(True)
            a.toggled.connect(getattr(self, spec.run))
        else:
            a.triggered.connect(lambda _=False, run=spec.run: getattr(self, run)())
        self.w.addAction(a)
        return a

    def _build_actions(self) -> None:
        self.actions: dict[str, QtGui.QAction] = {spec.id: self._action(spec) for spec in SIM_ACTIONS}
        self.overlay_actions: dict[str, QtGui.QAction] = {}
        for name, title, on, tip in OVERLAYS:
            a = QtGui.QAction(title, self.w)
            a.setObjectName(f"overlay.{name}")
            a.setCheckable(True)
            a.setChecked(on)
            a.setStatusTip(tip)
            a.toggled.connect(self._overlays_changed)
            self.w.addAction(a)
            self.overlay_actions[name] = a

    def _build_docks(self) -> None:
        w = self.w
        w.add_dock("simulation", "Simulation", self.parameters)
        # The plots run along the whole bottom of the window: at 1280 pixels every plot (the sweep's included)
        # gets a row of its own width, which the viewport's width alone could not give five or six plots.
        w.setCorner(QtCore.Qt.Corner.BottomLeftCorner, QtCore.Qt.DockWidgetArea.BottomDockWidgetArea)
        w.setCorner(QtCore.Qt.Corner.BottomRightCorner, QtCore.Qt.DockWidgetArea.BottomDockWidgetArea)
        w.add_dock("plots", "Plots", self.plots, QtCore.Qt.DockWidgetArea.BottomDockWidgetArea)
        # The sweep's plot: a dock of its own beside the plots, shown when a sweep has a result.
        w.add_dock("sweep", "Sweep", self.sweep_plot, QtCore.Qt.DockWidgetArea.BottomDockWidgetArea)
        w.splitDockWidget(w.docks["plots"], w.docks["sweep"], QtCore.Qt.Orientation.Horizontal)
        w.docks["sweep"].hide()
        if "profiles" in w.docks:
            w.tabifyDockWidget(w.docks["profiles"], w.docks["simulation"])
        w.docks["simulation"].raise_()
        w.resizeDocks([w.docks["plots"]], [PLOTS_HEIGHT], QtCore.Qt.Orientation.Vertical)
        if "inspector" in w.docks:
            w.resizeDocks([w.docks["inspector"], w.docks["simulation"]], [260, 640], QtCore.Qt.Orientation.Vertical)

    def _build_menus(self) -> None:
        bar = self.w.menuBar()
        help_menu = getattr(self.w, "menus", {}).get("Help")
        before = help_menu.menuAction() if help_menu is not None else None
        self.sim_menu = QtWidgets.QMenu(f"&{SIM_MENU}", self.w)
        self.overlay_menu = QtWidgets.QMenu(f"&{OVERLAY_MENU}", self.w)
        for m in (self.sim_menu, self.overlay_menu):
            bar.insertMenu(before, m) if before is not None else bar.addMenu(m)
        for spec in SIM_ACTIONS:
            self.sim_menu.addAction(self.actions[spec.id])
            if spec.id in ("sim.reset", "sim.compare", "sim.add_agents"):
                self.sim_menu.addSeparator()
        self.speed_menu = self.sim_menu.addMenu("Sp&eed")
        group = QtGui.QActionGroup(self.w)
        for k in range(self.parameters.speed.count()):
            a = self.speed_menu.addAction(self.parameters.speed.itemText(k))
            a.setCheckable(True)
            a.setChecked(k == self.parameters.speed.currentIndex())
            a.triggered.connect(lambda _=False, k=k: self.set_speed_index(k))
            group.addAction(a)
        self.speed_group = group
        self.parameters.speed.currentIndexChanged.connect(lambda k: group.actions()[k].setChecked(True))
        for name, a in self.overlay_actions.items():
            self.overlay_menu.addAction(a)
            if name in ("ecm",):
                self.overlay_menu.addSeparator()
        if hasattr(self.w, "panels_menu"):
            for name in ("simulation", "plots", "sweep"):
                self.w.panels_menu.addAction(self.w.docks[name].toggleViewAction())

    def _build_toolbar(self) -> None:
        tb = QtWidgets.QToolBar("Simulation")
        tb.setObjectName("toolbar.simulation")
        tb.setIconSize(QtCore.QSize(20, 20))
        for name in ("sim.play", "sim.pause", "sim.step", "sim.reset"):
            tb.addAction(self.actions[name])
        tb.addSeparator()
        self.clock = QtWidgets.QLabel("t = 0.0 s")
        self.clock.setObjectName("sim.clock")
        self.clock.setMinimumWidth(92)
        tb.addWidget(self.clock)
        self.toolbar = tb
        self.w.addToolBar(tb)

    def _build_status(self) -> None:
        bar = self.w.statusBar()
        self.busy_label = QtWidgets.QLabel()
        self.busy_label.setObjectName("sim.busy")
        self.progress = QtWidgets.QProgressBar()
        self.progress.setObjectName("sim.progress")
        self.progress.setMaximumWidth(180)
        self.progress.setMaximumHeight(14)
        self.progress.setTextVisible(False)
        self.cancel = QtWidgets.QToolButton()
        self.cancel.setObjectName("sim.cancel")
        self.cancel.setText("Cancel")
        self.cancel.clicked.connect(self.bridge.cancel_build)
        self.stats_label = QtWidgets.QLabel()
        self.stats_label.setObjectName("sim.stats")
        # Fast mode's error budget as last measured (core.bench.fidelity), shown while the fidelity is fast.
        self.budget_label = QtWidgets.QLabel()
        self.budget_label.setObjectName("sim.budget")
        for wdg in (self.busy_label, self.progress, self.cancel, self.budget_label):
            bar.addPermanentWidget(wdg)
            wdg.hide()
        bar.addPermanentWidget(self.stats_label)

    def _connect(self) -> None:
        b = self.bridge
        b.build.connect(self._on_build)
        b.mesh.connect(self._on_mesh)
        b.frame.connect(self._on_frame)
        b.trace.connect(self._on_trace)
        b.trails.connect(self._on_trails)
        b.ghost.connect(self._on_ghost)
        b.stats.connect(self._on_stats)
        b.ecm.connect(self._on_ecm)
        b.event.connect(self._on_event)
        self.w.viewport.painted.connect(self._painted)
        self.doc.reset.connect(self._scene_reset)
        self.doc.changed.connect(self._scene_changed)
        self.doc.selection_changed.connect(self._doc_selection)
        self.parameters.agent_chosen.connect(self.select_agent)
        self.parameters.fidelity_shown.connect(self._show_fidelity)
        self._show_fidelity(str(self.parameters.fidelity.currentData()))
        self.parameters.compare_method.activated.connect(lambda _: self._compare_method_changed())
        self.w.viewport.viewport().installEventFilter(self)

    def _show_fidelity(self, fidelity: str) -> None:
        """In fast mode, the status bar says so and whether its error budget held when last measured, with the
        figures, when and where in the tooltip. The panel reports its fidelity at every rebuild; the figures also
        show as a message only when fast mode is entered."""
        from core.bench.fidelity import budget_line, budget_verdict, last_budget

        fast = fidelity == "fast"
        entered = fast and not self.budget_label.isVisibleTo(self.w)
        self.budget_label.setVisible(fast)
        if fast:
            summary = last_budget()
            verdict = budget_verdict(summary)
            self.budget_label.setText({"within": "Fast mode: within its error budget",
                                       "over": "Fast mode: over its error budget"}.get(
                                           verdict, "Fast mode: error budget not measured"))
            line = budget_line(summary)
            self.budget_label.setToolTip(line)
            if entered:
                self.w.statusBar().showMessage(line, 10000)

    # ----- lifetime -------------------------------------------------------------------------------------------

    def start(self) -> None:
        """Start the worker threads (JIT warm-up first) and hand them the scene."""
        if not self.bridge.running:
            self._start_timer.stop()
            self.bridge.start(self.doc.scene)
            self.bridge.send("overlays", self._overlay_names())
            self.bridge.send("load", self.doc.scene, self.document)

    def shutdown(self) -> None:
        """Stop the threads (the window is closing)."""
        self._start_timer.stop()
        self.bridge.shutdown()

    # ----- commands -----------------------------------------------------------------------------------------------

    def _send(self, name: str, *args) -> None:
        self.start()
        self.bridge.send(name, *args)

    def play(self) -> None:
        if self.bridge.running and self.warmup_seconds is None:
            self.w.statusBar().showMessage("Play starts as soon as the engine is compiled for this scene (first "
                                           "start only); the scene can be edited meanwhile.", 8000)
        self._send("play")

    def pause(self) -> None:
        self._send("pause")

    def step(self) -> None:
        self._send("step", 1)

    def reset(self) -> None:
        """Reset stops the run: Play is at hand at once, while the run is rebuilt (a Play clicked meanwhile starts
        the rebuilt run; it was lost while the last frame of the old run still said it played)."""
        self._resetting = self.generation
        self.actions["sim.play"].setEnabled(True)
        self.actions["sim.pause"].setEnabled(False)
        self._send("reset")

    def set_preview(self, on: bool) -> None:
        self.ghost.set_visible(on)
        if not on:
            self.ghost.clear()
        self._send("preview", on)

    def set_compare(self, on: bool) -> None:
        self._send("compare", self.parameters.compare_method.currentData() if on else None)

    def _compare_method_changed(self) -> None:
        if self.actions["sim.compare"].isChecked():
            self.set_compare(True)

    def set_speed_index(self, k: int) -> None:
        self.parameters.speed.setCurrentIndex(k)
        self._send("speed", self.parameters.speed.itemData(k))

    def add_agents(self) -> None:
        self.start()
        self.parameters.add_agents()

    def select_agent(self, index: int) -> None:
        """Trace this agent (-1: none): overlays and plots follow it."""
        self.selected = int(index)
        self.agents.select(self.selected)
        self.parameters.set_agent(self.selected)
        if self.selected < 0:
            self.trace.show(None)
            self.plots.clear_data()
        self._send("select", self.selected)
        if self.replay.active:
            self.replay.show_index(self.replay.timeline.slider.value())     # its speed up to the time shown

    def _overlay_names(self) -> list[str]:
        return [n for n, a in self.overlay_actions.items() if a.isChecked()]

    def _overlays_changed(self, *args) -> None:
        on = set(self._overlay_names())
        self.trails.set_visible("trails" in on)
        self.mesh.set_visible("triangulation" in on)
        self.ecm.set_visible("ecm" in on)
        self.legend.setVisible("ecm" in on and bool(self.legend.entries))
        self.trace.set_parts(on & set(TraceOverlay.PARTS))
        if "ecm" in on:
            self._request_ecm()
        if self.bridge.running:
            self.bridge.send("overlays", sorted(on))

    def _request_ecm(self) -> None:
        scene = self.doc.scene
        if self._ecm_scene is not None and not any(getattr(scene, f) != getattr(self._ecm_scene, f)
                                                   for f in GEOMETRY_FIELDS):
            return
        self._ecm_scene = scene
        self._send("ecm", ECM_RESOLUTION)

    # ----- exports --------------------------------------------------------------------------------------------

    def _output_problem(self, path: str | Path) -> str | None:
        """Why an export may not be written to ``path`` (it is the open scene's file: the output rule of
        core.scene.outputs), or None."""
        inputs = [("the open scene", self.doc.path)] if self.doc.path is not None else []
        problems = output_problems([("the export", path)], inputs, writable=False)
        return problems[0][1] if problems else None

    def _output_refused(self, title: str, path: str | Path) -> bool:
        """Show an error and say True when ``path`` may not be written (``_output_problem``)."""
        msg = self._output_problem(path)
        if msg:
            self.show_error(title, msg)
        return msg is not None

    def _suggest(self, suffix: str) -> str:
        p = self.doc.path
        return str(p.with_name(p.stem + suffix)) if p is not None else "paths" + suffix

    def sweep_dialog(self) -> None:
        """Simulation > Sweep…: the sweep dialog over the panel's parameters (needs the 'sweep' extra)."""
        from core.sweep.deps import MissingExtra, require

        try:
            for module in ("pandas", "distributed"):
                require(module, "Simulation > Sweep")
        except MissingExtra as e:
            self.show_error("Sweep", str(e))
            return
        from .qt_sweep import QtSweepDialog

        if self.sweep is None:
            self.sweep = QtSweepDialog(self.w, self.parameters, self)
        self.sweep.fill_parameters()
        self.sweep.show()
        self.sweep.raise_()

    def show_sweep(self, lines, x: str, y: str) -> None:
        """A sweep's result in the sweep dock (shown)."""
        self.sweep_plot.show_sweep(lines, x, y)
        dock = self.w.docks["sweep"]
        if not dock.isVisible():
            dock.show()
            # One plot's share of the bottom row, not half of it.
            plots = self.w.docks["plots"]
            total = plots.width() + dock.width()
            n = len(self.plots.shown())
            self.w.resizeDocks([plots, dock], [total * n // (n + 1), total // (n + 1)],
                               QtCore.Qt.Orientation.Horizontal)
        dock.raise_()

    def clear_sweep(self) -> None:
        """No sweep result (another document): the sweep dock is emptied and hidden."""
        self.sweep_plot.clear_sweep()
        self.w.docks["sweep"].hide()

    def export_json_dialog(self) -> None:
        path = ask_export_path(self.w, "Export Paths", self._suggest(".paths.json"), "miran-paths (*.json)")
        if path and not self._output_refused("Export Paths", path):
            self._send("export", path, "json")

    def export_csv_dialog(self) -> None:
        path = ask_export_path(self.w, "Export Paths as CSV", self._suggest(".paths.csv"), "CSV (*.csv)")
        if path and not self._output_refused("Export Paths as CSV", path):
            self._send("export", path, "csv")

    def export_pedpy_dialog(self) -> None:
        path = ask_export_path(self.w, "Export Trajectories for PedPy", self._suggest(".traj.txt"),
                               "PedPy trajectories (*.txt)")
        if path and not self._output_refused("Export Trajectories for PedPy", path):
            self._send("export", path, "pedpy")

    def export_jupedsim_dialog(self) -> None:
        path = ask_export_path(self.w, "Export JuPedSim Trajectories", self._suggest(".sqlite"),
                               "JuPedSim SQLite (*.sqlite)")
        if path and not self._output_refused("Export JuPedSim Trajectories", path):
            self._send("export", path, "jupedsim")

    def export_geojson_dialog(self) -> None:
        path = ask_export_path(self.w, "Export Paths as GeoJSON", self._suggest(".geojson"), "GeoJSON (*.geojson)")
        if path and not self._output_refused("Export Paths as GeoJSON", path):
            self._send("export", path, "geojson")

    def open_recording_dialog(self) -> None:
        """Simulation > Open Recording…: replay a ``miran-paths`` file over this scene."""
        path, _ = QtWidgets.QFileDialog.getOpenFileName(self.w, "Open Recording", self._suggest(".paths.json"),
                                                        "miran-paths (*.json);;All files (*)")
        if path:
            self.replay.open(path)

    def save_recording_dialog(self) -> None:
        """Simulation > Save Recording…: the run shown (live or replayed) as a ``miran-paths`` file."""
        path = ask_export_path(self.w, "Save Recording", self._suggest(".paths.json"), "miran-paths (*.json)")
        if path and not self._output_refused("Save Recording", path):
            try:
                self.replay.save(path)
            except (OSError, RuntimeError) as e:
                self.show_error("Save Recording", str(e))

    def export_png_dialog(self) -> None:
        path = ask_export_path(self.w, "Export Viewport", self._suggest(".png"), "PNG image (*.png)")
        if path and not self._output_refused("Export Viewport", path):
            self.export_png(path)

    def export_png(self, path: str | Path) -> bool:
        """Save the viewport as a PNG picture."""
        ok = self.w.viewport.grab().save(str(path), "PNG")
        self.w.statusBar().showMessage(f"Saved {path}" if ok else f"Could not save {path}", 6000)
        return ok

    def export_paths(self, path: str | Path, fmt: str | None = None, timeout_s: float = 300.0) -> Path:
        """Write the walked paths (``miran-paths`` JSON, CSV for a ``.csv`` path, or ``fmt``: pedpy, jupedsim,
        geojson) and return once written;
        the event loop keeps running meanwhile. RuntimeError with the engine's message when it fails."""
        msg = self._output_problem(path)
        if msg:
            raise RuntimeError(msg)
        p = str(Path(path))
        fmt = fmt or ("csv" if p.lower().endswith(".csv") else "json")
        self._exports.pop(p, None)
        self._send("export", p, fmt)
        loop = QtCore.QEventLoop()
        deadline = time.monotonic() + timeout_s
        while p not in self._exports and time.monotonic() < deadline:
            loop.processEvents(QtCore.QEventLoop.ProcessEventsFlag.AllEvents, 50)
            time.sleep(0.002)
        if p not in self._exports:
            raise RuntimeError(f"exporting {p} took longer than {timeout_s:g} s")
        err = self._exports.pop(p)
        if err is not None:
            raise RuntimeError(err)
        return Path(p)

    def latest_positions(self) -> np.ndarray:
        """The (N, 2) agent positions last drawn."""
        return self.agents.positions.copy()

    # ----- scene ----------------------------------------------------------------------------------------------

    def _scene_reset(self) -> None:
        """Another document (New, Open, Import, Recover): everything the last one's run showed goes, and what
        arrives late from it (builds, frames, overlays, recordings) is not drawn. The side-by-side run and the
        ghost preview belong to the run: they are switched off. What the window shows of the new document is
        what a fresh start on it shows."""
        self.document += 1
        self.replay.forget()
        self.info = self.frame = None
        self.pacer = FramePacer()
        self._pending = {}
        self._draw_timer.stop()
        self.w.viewport.sync.hold(False)
        self.generation = -1
        self.selected = -1
        self.agents.select(-1)
        self.parameters.set_agent(-1)
        for name in ("sim.compare", "sim.preview"):
            a = self.actions[name]
            was = a.blockSignals(True)
            a.setChecked(False)
            a.blockSignals(was)
        self.ghost.set_visible(False)
        for layer in (self.agents, self.world, self.trails, self.ghost, self.ecm, self.mesh):
            layer.clear()
        self.legend.set_top(None)
        self.legend.hide()
        self.trace.show(None)
        self.plots.reset(*self._terrain_names())
        self._ecm_scene = None
        self.show_clock(0.0)
        self.stats_label.setText("")
        self.actions["sim.play"].setEnabled(True)
        self.actions["sim.pause"].setEnabled(True)
        if self.sweep is not None:
            self.sweep.forget()
        else:
            self.clear_sweep()
        if self.bridge.running:
            self.bridge.send("load", self.doc.scene, self.document)
            if self.overlay_actions["ecm"].isChecked():
                self._request_ecm()

    def _terrain_names(self, ids=None) -> tuple[list[str], list[str]]:
        """The names and colours of the terrain types ``ids`` (default: all of the scene's), for the plots."""
        types = {t.id: t for t in self.doc.scene.terrain_types}
        ids = list(types) if ids is None else list(ids)
        return ([types[t].name or t if t in types else t for t in ids],
                [types[t].color if t in types else "#9ca3af" for t in ids])

    def _scene_changed(self, fields) -> None:
        if set(IMPORTED_FIELDS) <= set(fields):
            # An import (or its undo) replaced the scene's contents: as for another document, the last contents'
            # run, overrides and plots go (the panel then shows the imported profiles, as the Profiles panel does).
            self.parameters.show_scene()
            self._scene_reset()
            return
        if self.bridge.running:
            self.bridge.send("scene", self.doc.scene)

    def _doc_selection(self) -> None:
        if self.info is None:
            return
        ids = [rid for kind, rid in self.doc.selection if kind == "agent"]
        if len(ids) == 1 and ids[0] in self.info.ids:
            self.select_agent(self.info.ids.index(ids[0]))

    # ----- snapshots ------------------------------------------------------------------------------------------

    def _on_build(self, info) -> None:
        if info.document != self.document:
            return                   # built for a document closed since
        fresh = self.info is None or info.ids != self.info.ids
        rebuilt = info.generation != self.generation
        if rebuilt:
            self.plots.clear_data()  # a rebuilt run (Reset, an edited scene) starts with empty plots
            self.replay.new_run()    # and measures its own recording, not the old run's
            self.ghost.clear()       # and its ghost comes anew; a side-by-side run starting keeps the preview
        self.info = info
        self.generation = info.generation
        self.parameters.show_build(info)
        self.mesh.show(info.mesh_edges, info.mesh_kind)
        if rebuilt or fresh:
            self.trails.clear()  # a live edit keeps the run and its trails
        self.plots.set_terrains(*self._terrain_names(info.terrains))
        if self.selected >= len(info.ids):
            self.select_agent(-1)
        elif fresh and self.selected < 0 and 0 < len(info.ids) <= 50:
            self.select_agent(0)
        if self.overlay_actions["ecm"].isChecked():
            self._request_ecm()

    def _on_mesh(self, m) -> None:
        """The running world's triangulation after a change during the run: the overlay follows it."""
        if m.generation == self.generation:
            self.mesh.show(m.edges, m.kind)

    def show_clock(self, t: float) -> None:
        """Show the simulated time ``t`` on the clock, and say so (``time_shown``)."""
        self.clock.setText(f"t = {t:,.1f} s")
        self.time_shown.emit(float(t))

    def _on_frame(self, f) -> None:
        if f.generation != self.generation or self.replay.active:
            return
        self.frame = f
        now = time.monotonic()
        self.pacer.push(f, now)
        self.w.viewport.sync.hold(f.playing)
        self.show_clock(f.time)
        if not (f.playing and f.generation == self._resetting):
            self._resetting = None
            self.actions["sim.play"].setEnabled(not f.playing)
            self.actions["sim.pause"].setEnabled(f.playing)
        self._schedule(now)

    def _schedule(self, now: float) -> None:
        if not self._draw_timer.isActive() and not self.replay.active:
            self._draw_timer.start(int(1000 * self.pacer.wait(now)))

    def _draw(self) -> None:
        """Apply the latest snapshots (agents where the pacer says, trace, trails, ghost) and ask for one repaint;
        ``_painted`` hears what it cost. (``repaint()`` here painted twice: once at once, and again when the scene
        processed the items' own update requests.)"""
        now = time.monotonic()
        self.w.viewport.sync.flush()  # the tool's preview of a drag is painted with this frame
        pending, self._pending = self._pending, {}
        if "trace" in pending:
            self.trace.show(pending["trace"] if self.selected >= 0 else None)
        if "trails" in pending:
            self.trails.show(pending["trails"].main, pending["trails"].compare)
        if "ghost" in pending:
            self.ghost.show(pending["ghost"].paths)
        f = self.frame
        if f is not None:
            self.agents.show_frame(f, self.pacer.positions(now))
            self.world.show(f.world)
        self.pacer.drew(now)
        self._drawn = True
        self.w.viewport.viewport().update()

    def _painted(self, seconds: float) -> None:
        """The viewport was painted in ``seconds``: every paint (a pan, an edit, a frame) counts for the pacer's
        budget; after a simulation frame, update the status and go on gliding."""
        now = time.monotonic()
        self.pacer.painted(now, seconds)
        if not self._drawn:
            return
        self._drawn = False
        f = self.frame
        if f is None:
            return
        self._frames.append(now)
        while self._frames and now - self._frames[0] > 1.0:
            self._frames.pop(0)
        if now - self._status_at >= STATUS_S or not f.playing:
            # A label's new text relays out the status bar: a few times a second is enough to read it.
            self._status_at = now
            fps = len(self._frames) if f.playing else 0
            rate = f"  ·  {f.rate:.2g}× real time" if f.playing and f.rate > 0 else ""
            lost = ""
            if f.lost:
                lost = f", {len(f.lost)} lost ({'; '.join(f.lost[:3])}{' ...' if len(f.lost) > 3 else ''})"
            rec = ""
            if f.stalled:
                share = 100.0 * f.recovered_steps / max(f.agent_steps, 1)
                rec = (f"  ·  recovery {f.recovered_steps} steps ({share:.1f} %), {f.stalled} "
                       f"agent{'s' if f.stalled != 1 else ''} stalled")
            self.stats_label.setText(f"{len(f.positions)} agents: {f.walking} walking, {f.arrived} arrived{lost}{rec}"
                                     f"  ·  step {f.step_ms:.1f} ms{rate}  ·  {fps} fps")
        if not self.pacer.settled(now):
            self._schedule(now)

    def _on_trace(self, view) -> None:
        if view is None or view.generation == self.generation:
            self._pending["trace"] = view
            self._schedule(time.monotonic())

    def _on_trails(self, tr) -> None:
        if tr.generation == self.generation:
            self._pending["trails"] = tr
            self._schedule(time.monotonic())

    def _on_ghost(self, g) -> None:
        if g.generation == self.generation and self.actions["sim.preview"].isChecked():
            self._pending["ghost"] = g
            self._schedule(time.monotonic())

    def _on_stats(self, st) -> None:
        if st.generation == self.generation and not self.replay.active:
            self.plots.show_stats(st)

    def _on_ecm(self, ecm) -> None:
        if ecm.document != self.document:
            return                   # the overlay of a document closed since
        self.ecm.show(ecm)
        lo, hi = self.ecm.range
        self.legend.set_top(hi)
        self.legend.setVisible(self.overlay_actions["ecm"].isChecked())
        done = (f"ECM updated around the edited obstacles in {1e3 * ecm.seconds:.0f} ms" if ecm.updated
                else f"ECM built in {ecm.seconds:.2f} s")
        self.w.statusBar().showMessage(f"{done}; clearance {lo:.2f} m (red) to {hi:.1f} m and more (blue)", 8000)

    def _on_event(self, ev) -> None:
        kind, args = ev.kind, ev.args
        if kind == "busy":
            text = args[0]
            for wdg in (self.busy_label, self.progress, self.cancel):
                wdg.setVisible(text is not None)
            if text is not None:
                self.busy_label.setText(text)
                self.progress.setRange(0, 0)
                self.cancel.setEnabled("warm-up" not in text)
        elif kind == "progress":
            fraction, stage = args
            self.progress.setRange(0, 1000)
            self.progress.setValue(int(1000 * fraction))
            self.busy_label.setText(stage)
        elif kind == "warm":
            self.warmup_seconds = float(args[0])
            self.w.statusBar().showMessage(f"Engine ready (JIT warm-up for this scene {args[0]:.1f} s).", 5000)
        elif kind == "error":
            self._ecm_scene = self._ecm_scene if self.ecm.axis._groups else None  # let a later toggle retry
            self.show_error(*args)
        elif kind == "exported":
            path, err = args
            self._exports[path] = err
            self.w.statusBar().showMessage(f"Exported {path}" if err is None else f"Export failed: {err}", 8000)
        elif kind == "info":
            if "cancelled" in args[0] and not self.ecm.axis._groups:
                self._ecm_scene = None
            self.w.statusBar().showMessage(args[0], 8000)
        elif kind == "stale":
            if args[0]:
                self.w.statusBar().showMessage("The scene was edited: Reset to simulate the edited scene.", 0)
            else:
                self.w.statusBar().clearMessage()

    def show_error(self, title: str, text: str) -> None:
        """Show an engine error without blocking (one box, updated)."""
        self.errors.append(f"{title}: {text}")
        self.w.statusBar().showMessage(f"{title}: {text.splitlines()[0] if text else ''}", 12000)
        if self._error_box is None:
            box = QtWidgets.QMessageBox(QtWidgets.QMessageBox.Icon.Warning, title, text,
                                        QtWidgets.QMessageBox.StandardButton.Ok, self.w)
            box.setObjectName("sim.error")
            box.setModal(False)
            box.finished.connect(lambda _: setattr(self, "_error_box", None))
            self._error_box = box
        self._error_box.setWindowTitle(title)
        self._error_box.setText(text)
        self._error_box.show()

    # ----- picking agents in the viewport ---------------------------------------------------------------------

    def eventFilter(self, obj, ev) -> bool:
        # Only the Select tool picks a walking agent: a click of a drawing tool (a measurement area's first corner,
        # an obstacle's vertex) draws, and must not also choose whoever walks under it.
        if ev.type() == QtCore.QEvent.Type.MouseButtonPress and ev.button() == QtCore.Qt.MouseButton.LeftButton \
                and self.w.host.active.name == "select":
            pos = self.agents.positions
            if len(pos):
                x, y = self.w.viewport.pixel_to_world(ev.position())
                d = np.hypot(pos[:, 0] - x, pos[:, 1] - y)
                k = int(np.argmin(d))
                if d[k] <= PICK_PIXELS * self.w.viewport.pixel():
                    self.select_agent(k)
        return False

