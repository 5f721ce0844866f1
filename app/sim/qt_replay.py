"""The replay timeline: a slider over the recorded run (live or loaded from a ``miran-paths`` file) that moves the
agents, their trails and the plots back and forth; the density heatmap and the measurement area and line, all
computed by core (core.sim.replay, core.analysis) from the same recording.

Moving the slider pauses the live run and asks the worker for what it recorded (``recording``); from then on the
window draws the recording at the slider's time until Play, Step or Reset hands it back to the live run. Density
and measurements are computed off the UI thread, one computation of a kind at a time: each result is drawn when
ready unless a newer one was drawn already, so the plots keep up with a live run however long a computation
takes. All of it belongs to the document: ``forget`` drops it when another is opened.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import shapely
from PySide6 import QtCore, QtWidgets

from core.analysis.density import (classic_heatmap, density_series, free_space, heatmap_cell, sample_frames,
                                   voronoi_heatmap)
from core.analysis.flow import cumulative_count, first_crossings, flow_rate
from core.analysis.speed import specific_flow, speed_series
from core.analysis.terrain import path_until, walked_terrain_lengths
from core.export import read_paths, write_paths
from core.scene.geometry import build_geometry
from core.scene.problems import InputError
from core.sim.replay import Replay

from ..layers.qt_density import DensityLayer, density_lut
from ..viewport.qt_legend import QtColourBar
from .messages import Frame
from ..panels.qt_spin import QtDoubleSpin

TRAIL_S = 20.0            # seconds of trail drawn behind each agent in the replay
HEATMAP_FRAMES = 12       # frames of the density window the heatmap averages (evenly spread)
SERIES_FRAMES = 240       # frames of the run the measurement area's density series samples
FLOW_WINDOW_S = 5.0       # the flow is the crossings over the last this many seconds
SPEED_HALF_WINDOW_S = 0.5  # individual speeds over [t - 0.5 s, t + 0.5 s] (PedPy's frame_step, in seconds)
LIVE_REFRESH_S = 1.0      # how often the live run's recording is fetched while density or measurements are shown
DENSITY_MODES = (("off", "Density: off"), ("voronoi", "Density: Voronoi"), ("grid", "Density: grid"))


@dataclass(frozen=True, eq=False)
class Measurement:
    """The measurement area's densities, mean speed and specific flow and the measurement line's crossings over
    time (arrays of equal length ``t``); ``area`` / ``line`` None when not drawn; ``flow`` agents/s over the last
    FLOW_WINDOW_S."""

    t: np.ndarray
    classic: np.ndarray
    voronoi: np.ndarray
    n_t: np.ndarray
    flow: float
    area: object
    line: object
    speed: np.ndarray | None = None
    specific_flow: np.ndarray | None = None


def heatmap(rep: Replay, t: float, window: float, mode: str, walkable, bounds) -> np.ndarray:
    """The density grid over [t - window, t] (PedPy's Voronoi or classic density profile)."""
    frames = sample_frames(rep, t - window, t, HEATMAP_FRAMES)
    cell = heatmap_cell(bounds)
    if mode == "voronoi":
        return voronoi_heatmap(frames, walkable, bounds, cell)
    grid = classic_heatmap(frames, bounds, cell)
    rows, cols = grid.shape
    x0, y0 = bounds[0], bounds[1]
    gx, gy = np.meshgrid(x0 + np.arange(cols) * cell, y0 + np.arange(rows) * cell)
    pixels = shapely.box(gx.ravel(), gy.ravel(), gx.ravel() + cell, gy.ravel() + cell)
    return np.where(shapely.intersects(walkable, pixels).reshape(rows, cols), grid, np.nan)


def measure(rep: Replay, upto: float, walkable, area, line) -> Measurement:
    """The measurement area's classic and Voronoi density, mean speed and specific flow (PedPy's definitions,
    core.analysis) and the line's N(t) from the run's start to ``upto``."""
    frames = sample_frames(rep, rep.t0, upto, SERIES_FRAMES)
    t = np.array([f[0] for f in frames], dtype=np.float64)
    classic = voronoi = np.zeros(len(t))
    n_t = np.zeros(len(t), dtype=np.int64)
    flow = 0.0
    speed = flow_j = None
    if area is not None and len(frames):
        t, classic, voronoi = density_series(frames, walkable, area)
        speed = speed_series(rep, t, area, SPEED_HALF_WINDOW_S)
        flow_j = specific_flow(classic, speed)
    if line is not None and len(t):
        crossings = first_crossings(rep.t, rep.xy, rep.offsets, line)
        crossings = np.where(crossings <= upto, crossings, np.nan)
        n_t = cumulative_count(crossings, t)
        flow = float(flow_rate(crossings, np.array([upto]), FLOW_WINDOW_S)[0])
    return Measurement(t, classic, voronoi, n_t, flow, area, line, speed, flow_j)


class QtTimeline(QtWidgets.QToolBar):
    """The timeline's widgets: the slider, the time, Live, and the density heatmap's mode and window."""

    def __init__(self) -> None:
        super().__init__("Timeline")
        self.setObjectName("toolbar.timeline")
        self.slider = QtWidgets.QSlider(QtCore.Qt.Orientation.Horizontal)
        self.slider.setObjectName("sim.timeline")
        self.slider.setToolTip("Replay: drag to move the recorded run back and forth (pauses the live run)")
        self.slider.setMinimumWidth(240)
        self.slider.setRange(0, 0)
        self.label = QtWidgets.QLabel("live")
        self.label.setObjectName("sim.timeline.label")
        self.label.setMinimumWidth(150)
        self.live = QtWidgets.QToolButton()
        self.live.setObjectName("sim.timeline.live")
        self.live.setText("Live")
        self.live.setToolTip("Back to the live run (Play, Step and Reset do that too)")
        self.mode = QtWidgets.QComboBox()
        self.mode.setObjectName("sim.density.mode")
        for key, text in DENSITY_MODES:
            self.mode.addItem(text, key)
        self.mode.setToolTip("Heatmap of the agents' density over the window before the shown time (PedPy's "
                             "Voronoi or classic grid density)")
        self.window = QtDoubleSpin()
        self.window.setObjectName("sim.density.window")
        self.window.setRange(0.0, 600.0)
        self.window.setValue(5.0)
        self.window.setSuffix(" s")
        self.window.setToolTip("The density's time window (0: the shown instant only)")
        self.addWidget(QtWidgets.QLabel(" Replay "))
        self.addWidget(self.slider)
        self.addWidget(self.label)
        self.addWidget(self.live)
        self.addSeparator()
        self.addWidget(self.mode)
        self.addWidget(self.window)


class QtReplay(QtCore.QObject):
    """The replay, density and measurement side of the simulation UI ``ui`` (a QtSimulationUi)."""

    computed = QtCore.Signal(object)      # (kind, request number, result) from the computing thread

    def __init__(self, ui) -> None:
        super().__init__(ui)
        self.ui = ui
        self.store: Replay | None = None
        self.source = None                # the PathsFile a loaded replay came from
        self.active = False
        self.times = np.zeros(0)
        self._entering: int | None = None
        self._setting = False
        self._requests = {"density": 0, "measure": 0}
        self._drawn = {"density": 0, "measure": 0}      # the newest request whose result was drawn
        self._valid = {"density": 0, "measure": 0}      # results of requests older than this are stale
        self._running = {"density": False, "measure": False}
        self._waiting: dict[str, tuple] = {}
        self._fetched = 0.0
        self._fetched_steps = -1
        self._walkable = None
        self._walkable_scene = None
        self._regions: tuple = ()
        self._regions_scene = None
        self.layer = DensityLayer(ui.view)
        self.legend = QtColourBar(ui.w.viewport)
        self.timeline = QtTimeline()
        ui.w.addToolBar(QtCore.Qt.ToolBarArea.BottomToolBarArea, self.timeline)
        self.timeline.slider.valueChanged.connect(self._moved)
        self.timeline.live.clicked.connect(lambda *_: self.leave())
        self.timeline.mode.currentIndexChanged.connect(lambda _: self.refresh())
        self.timeline.window.valueChanged.connect(lambda _: self.refresh())
        self.computed.connect(self._on_computed, QtCore.Qt.ConnectionType.QueuedConnection)
        ui.bridge.replay.connect(self._on_replay)
        ui.bridge.frame.connect(self._on_live_frame)
        for name in ("sim.play", "sim.step", "sim.reset"):
            ui.actions[name].triggered.connect(lambda *_: self.leave())
        ui.doc.changed.connect(self._doc_changed)

    # ----- entering and leaving -----------------------------------------------------------------------------------

    def _moved(self, value: int) -> None:
        if self._setting:
            return
        if self.active and self.store is not None and self._entering is None:
            self.show_index(value)
            return
        if not self.active:
            self.active = True
            self._entering = value
            self.ui.pause()
            self.ui.bridge.send("recording")
            self.timeline.label.setText("fetching the recording…")

    def leave(self) -> None:
        """Back to the live run: its next frame is drawn as usual."""
        if not self.active:
            return
        self.active = False
        self._entering = None
        self.source = None
        self.store = None
        self.ui.trails.clear()
        self.timeline.label.setText("live")
        self.ui.bridge.send("overlays", self.ui._overlay_names())
        self.refresh()

    def forget(self) -> None:
        """Another document: drop the recording, the timeline's range, the heatmap and the measurements (what is
        still being computed for the last document is not drawn), and show the new document's measurement."""
        self.source = None
        self._drop_run()
        self._walkable_scene = self._regions_scene = None
        self._setting = True
        self.timeline.slider.setRange(0, 0)
        self.timeline.slider.setValue(0)
        self._setting = False
        was = self.timeline.mode.blockSignals(True)     # the heatmap is an analysis of the run: off, as at start
        self.timeline.mode.setCurrentIndex(0)
        self.timeline.mode.blockSignals(was)
        m = self.ui.doc.scene.measurement
        self.layer.show_area(m.area)
        self.layer.show_line(m.line)
        if not m.is_empty():
            self.refresh()

    def new_run(self) -> None:
        """The live run was rebuilt (Reset, an edited scene): the recording, heatmap and measurement plots shown are
        the old run's, so they go; the new run's first frame fetches its own recording, as a fresh window's does.
        A loaded recording stays: it is no live run's."""
        if not (self.active and self.source is not None):
            self._drop_run()

    def _drop_run(self) -> None:
        """Back to live with no recording, heatmap or measurement plots; what is still being computed from the
        dropped recording is stale (not drawn)."""
        self.active = False
        self._entering = None
        self.store = None
        self.times = np.zeros(0)
        self._fetched = 0.0
        self._fetched_steps = -1
        for kind in self._requests:
            self._requests[kind] += 1
            self._valid[kind] = self._requests[kind]
        self._waiting.clear()
        self.timeline.label.setText("live")
        self.layer.clear()
        self.legend.hide()
        self.ui.plots.hide_measurements(area=True, line=True)

    def open(self, path: str | Path) -> bool:
        """Load a ``miran-paths`` file and show it in replay mode at its start; False (and the problems shown)
        when it cannot be read."""
        try:
            pf = read_paths(path)
        except InputError as e:
            self.ui.show_error("Open Recording", "\n".join(e.lines()))
            return False
        except OSError as e:
            self.ui.show_error("Open Recording", f"{path}: {e.strerror or e}")
            return False
        if self.ui.bridge.running:
            self.ui.bridge.send("pause")
        self.active = True
        self.source = pf
        self._entering = None
        self._set_store(Replay.from_paths(pf), 0)
        scene = self.ui.doc.scene.name
        note = f" (recorded in scene {pf.scene!r}, this is {scene!r})" if pf.scene and pf.scene != scene else ""
        stalled = [a for a in pf.agents if a.stalls]
        if stalled:
            note += (f"; {len(stalled)} agent{'s' if len(stalled) != 1 else ''} stalled, "
                     f"{sum(a.recovered_steps for a in stalled)} steps walked by the recovery")
        self.ui.w.statusBar().showMessage(f"Replaying {Path(path).name}: {len(pf.agents)} agents, "
                                          f"{self.store.t1:.1f} s{note}.", 10000)
        return True

    def save(self, path: str | Path) -> Path:
        """Write the run shown as a ``miran-paths`` file: a loaded recording as it was read, else the live run's
        recording (the same file as Export Paths)."""
        if self.active and self.source is not None:
            write_paths(path, self.source)
            self.ui.w.statusBar().showMessage(f"Saved {path}", 6000)
            return Path(path)
        return self.ui.export_paths(path, "json")

    # ----- the recording ----------------------------------------------------------------------------------------

    def _on_replay(self, rec) -> None:
        if rec.generation != self.ui.generation:
            return                                   # the recording of a run reset or closed since
        rep = rec.replay
        if self.active and self.source is not None:
            return                                   # a loaded file is shown: the live recording waits
        if self.active:
            k = self._entering if self._entering is not None else self.timeline.slider.value()
            self._entering = None
            self._set_store(rep, k)
            return
        self.store = rep
        self.refresh(rep.t1)

    def _set_store(self, rep: Replay, index: int) -> None:
        self.store = rep
        self.times = rep.times()
        self._setting = True
        self.timeline.slider.setRange(0, max(0, len(self.times) - 1))
        self.timeline.slider.setValue(int(np.clip(index, 0, max(0, len(self.times) - 1))))
        self._setting = False
        self.show_index(self.timeline.slider.value())

    def _on_live_frame(self, f) -> None:
        if self.active or f.generation != self.ui.generation:
            return                                   # replaying, or a frame of a run reset or closed since
        self._setting = True
        self.timeline.slider.setRange(0, int(f.steps))
        self.timeline.slider.setValue(int(f.steps))
        self._setting = False
        now = QtCore.QDateTime.currentMSecsSinceEpoch() / 1000.0
        # Every LIVE_REFRESH_S while playing, and once more where the run stopped (so the plots end there).
        due = now - self._fetched > LIVE_REFRESH_S if f.playing else f.steps != self._fetched_steps
        if self._wants_recording() and due:
            self._fetched = now
            self._fetched_steps = int(f.steps)
            self.ui.bridge.send("recording")

    def _wants_recording(self) -> bool:
        return self.mode != "off" or not self.ui.doc.scene.measurement.is_empty()

    # ----- drawing a time -----------------------------------------------------------------------------------------

    @property
    def mode(self) -> str:
        return self.timeline.mode.currentData()

    def time(self) -> float:
        """The time shown: the slider's in replay, the latest recorded otherwise."""
        if self.active and len(self.times):
            return float(self.times[min(self.timeline.slider.value(), len(self.times) - 1)])
        return self.store.t1 if self.store is not None else 0.0

    def show_index(self, k: int) -> None:
        """Draw the recording at its k-th recorded time: agents, trails, plots and the clock."""
        rep, ui = self.store, self.ui
        if rep is None or len(self.times) == 0:
            return
        t = float(self.times[int(np.clip(k, 0, len(self.times) - 1))])
        pos = rep.positions_at(t)
        status = rep.status_at(t)
        walking = int(np.count_nonzero(status == 0))
        arrived = int(np.count_nonzero(status == 1))
        frame = Frame(generation=ui.generation, time=t, steps=int(k), positions=pos, status=status,
                      profile=rep.profile, compare_positions=None, compare_status=None, playing=False,
                      walking=walking, arrived=arrived, rate=0.0, step_ms=0.0)
        ui.agents.show_frame(frame)
        ui.world.show(tuple(np.asarray(o.polygon_at(t)) for o in ui.doc.scene.obstacles
                            if (o.scheduled or o.moving) and o.stands_at(t)))
        ui.trails.show(rep.trails(t, TRAIL_S), np.zeros((0, 2), dtype=np.float32))
        ui.trace.show(None)
        sel = ui.selected if 0 <= ui.selected < rep.n else -1
        speed_t, speed_v = rep.speeds(sel, t) if sel >= 0 else (np.zeros(0), np.zeros(0))
        ui.plots.show_replay(speed_t, speed_v, rep.arrivals(t), rep.n, self.terrain_lengths(sel, t))
        ui.show_clock(t)
        self.timeline.label.setText(f"replay {t:,.1f} / {self.times[-1]:,.1f} s")
        ui.stats_label.setText(f"{rep.n} agents at {t:.1f} s: {walking} walking, {arrived} arrived (replay)")
        ui.w.viewport.viewport().update()
        self.refresh(t)

    def terrain_lengths(self, i: int, t: float) -> np.ndarray:
        """(T,) the length agent i of the recording walked on each of the scene's terrain types up to t (empty
        with no agent chosen); the plot's terrain axis is set to the scene's types."""
        scene = self.ui.doc.scene
        if self._regions_scene is not scene:
            self._regions, self._regions_scene = build_geometry(scene).regions, scene
            self.ui.plots.set_terrains([tt.name or tt.id for tt in scene.terrain_types],
                                       [tt.color for tt in scene.terrain_types])
        if self.store is None or not 0 <= i < self.store.n:
            return np.zeros(0)
        return walked_terrain_lengths(path_until(self.store.path(i), t), self._regions)

    # ----- density and measurements -------------------------------------------------------------------------

    def _walkable_area(self):
        scene = self.ui.doc.scene
        if self._walkable_scene is not scene:
            self._walkable, self._walkable_scene = free_space(scene), scene
        return self._walkable

    def refresh(self, t: float | None = None) -> None:
        """Recompute the heatmap and the measurements for time t (default: the time shown), off the UI thread."""
        rep = self.store
        if self.mode == "off":
            self.layer.clear()
            self.legend.hide()
        m = self.ui.doc.scene.measurement
        if rep is None:
            if self._wants_recording() and self.ui.bridge.running:
                self.ui.bridge.send("recording")
            return
        t = self.time() if t is None else t
        walkable = self._walkable_area()
        bounds = tuple(float(v) for v in self.ui.doc.scene.bounds)
        if self.mode != "off":
            mode, window = self.mode, float(self.timeline.window.value())
            self._submit("density", lambda: (heatmap(rep, t, window, mode, walkable, bounds), bounds))
        if not m.is_empty():
            area = shapely.Polygon(m.area) if m.area is not None else None
            line = shapely.LineString(m.line) if m.line is not None else None
            self._submit("measure", lambda: measure(rep, t, walkable, area, line))

    def _submit(self, kind: str, job) -> None:
        """Compute ``job`` in a thread; one computation of a kind at a time, the latest request waiting for it
        (a live run asks every second, and a Voronoi series of a big crowd can take longer than that)."""
        self._requests[kind] += 1
        if self._running[kind]:
            self._waiting[kind] = (self._requests[kind], job)
            return
        self._start(kind, self._requests[kind], job)

    def _start(self, kind: str, number: int, job) -> None:
        self._running[kind] = True

        def run() -> None:
            try:
                result = job()
            except Exception as e:  # a failed measure is reported, the window carries on
                result = e
            try:
                self.computed.emit((kind, number, result))
            except RuntimeError:    # the window closed while it computed: nothing to draw it in
                pass

        threading.Thread(target=run, name=f"replay.{kind}", daemon=True).start()

    def _on_computed(self, msg) -> None:
        kind, number, result = msg
        self._running[kind] = False
        waiting = self._waiting.pop(kind, None)
        if waiting is not None:
            self._start(kind, *waiting)
        # Drawn unless stale (the area, line or document changed since it was asked for) or older than what is
        # drawn: a live run asks again every second, so waiting for "the latest" would draw nothing while it plays.
        if number < self._valid[kind] or number <= self._drawn[kind]:
            return
        self._drawn[kind] = number
        if isinstance(result, Exception):
            self.ui.show_error("Density" if kind == "density" else "Measurement", f"{type(result).__name__}: "
                                                                                   f"{result}")
            return
        if kind == "density":
            if self.mode != "off":
                self.layer.show(*result)
                mode = "Voronoi" if self.mode == "voronoi" else "grid"
                self.legend.set_scale(f"Density ({mode}, {self.timeline.window.value():g} s)", density_lut(),
                                      self.layer.top, "/m²")
                self.legend.show()
        else:
            self.ui.plots.show_measurements(result)
        self.ui.w.viewport.viewport().update()

    def _doc_changed(self, fields) -> None:
        """The scene's measurement area or line was drawn, removed, undone or loaded: draw it and measure."""
        if "measurement" not in fields:
            return
        m = self.ui.doc.scene.measurement
        self._requests["measure"] += 1               # a measurement of the old area or line is not drawn
        self._valid["measure"] = self._requests["measure"]
        self.layer.show_area(m.area)
        self.layer.show_line(m.line)
        self.ui.plots.hide_measurements(area=m.area is None, line=m.line is None)
        self.refresh()
